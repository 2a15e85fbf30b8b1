/**
 * The canonical form of a user name: Unicode NFC, so that `ë` typed two ways is one name. Which
 * names are valid is the rule of RegisterUserRequest (docs/api/accounts.md, "Accounts").
 */
export function normalizeName(name: string): string {
  return name.normalize('NFC');
}

/**
 * The canonical form of an e-mail address: trimmed (case is kept; uniqueness ignores it). Which
 * addresses are plausible is the rule of RegisterUserRequest and UpdateUserRequest.
 */
export function normalizeEmail(email: string): string {
  return email.trim();
}
