/**
 * Operator roles. Kept in a file without zod so the web client's bundle can import the
 * values (see browser.ts).
 */
export const OPERATOR_ROLES = ['admin', 'operator'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** Rule of `CreateOperatorDto.username`: 2–64 letters, digits, dots, dashes or underscores. */
export const OPERATOR_USERNAME_PATTERN = /^[a-zA-Z0-9._-]{2,64}$/;

/** Shortest password the API accepts for an operator (`CreateOperatorDto`, `ChangePasswordDto`…). */
export const OPERATOR_PASSWORD_MIN_LENGTH = 10;

/** Languages of the interface and of answers; an operator's choice is stored with the operator. */
export const OPERATOR_LANGUAGES = ['en', 'ru'] as const;
export type OperatorLanguage = (typeof OPERATOR_LANGUAGES)[number];
