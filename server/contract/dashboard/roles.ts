// Operator roles, from least to most: viewer (reads everything), admin (also changes packages,
// keys and providers, but not provider keys), owner (also provider keys and operators).
// Plain data with no imports: the tRPC middleware and the dashboard's pages both read it.

export const OPERATOR_ROLES = ['viewer', 'admin', 'owner'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const isOperatorRole = (value: unknown): value is OperatorRole => OPERATOR_ROLES.includes(value as OperatorRole);

/** Whether an operator of `role` may do what needs at least `minimum`. */
export function roleAllows(role: OperatorRole | null | undefined, minimum: OperatorRole): boolean {
  return role !== null && role !== undefined && OPERATOR_ROLES.indexOf(role) >= OPERATOR_ROLES.indexOf(minimum);
}

export const ROLE_DESCRIPTIONS: Record<OperatorRole, string> = {
  owner: 'everything, including operators and provider keys',
  admin: 'packages, keys and providers, without provider keys',
  viewer: 'read only',
};
