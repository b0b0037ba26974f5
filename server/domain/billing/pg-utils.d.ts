// pg's own conversion of a query value to the text it sends (@types/pg does not declare it).
declare module 'pg/lib/utils.js' {
  export function prepareValue(value: unknown): string | Buffer | null;
}
