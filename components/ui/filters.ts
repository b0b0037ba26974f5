// Server-safe entry point of the filters: the form itself is a client component (it applies as
// you type), while optionsOf runs where the page renders.
export { Filters, type FilterField } from './live-filters';

export const optionsOf = (values: readonly string[]) => values.map((value) => ({ value, label: value }));
