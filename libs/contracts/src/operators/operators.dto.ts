import { z } from 'zod';
import { zodDto } from '../validation/zod-dto';
import {
  OPERATOR_LANGUAGES,
  OPERATOR_PASSWORD_MIN_LENGTH,
  OPERATOR_ROLES,
  OPERATOR_USERNAME_PATTERN,
  type OperatorLanguage,
  type OperatorRole,
} from './operator-roles';

export * from './operator-roles';

/** A new password: at least OPERATOR_PASSWORD_MIN_LENGTH characters. */
const newPassword = z
  .string()
  .min(OPERATOR_PASSWORD_MIN_LENGTH, { error: `must be at least ${OPERATOR_PASSWORD_MIN_LENGTH} characters` })
  .max(200);
const displayName = z.string().min(1).max(100);

/** `POST /api/auth/login`. The messages are those the sign-in form and its tests have always read. */
export class LoginDto extends zodDto(
  z.strictObject({
    username: z.string({ error: 'must be a string' }).min(1).max(100),
    password: z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must be longer than or equal to 1 characters' })
      .max(200),
  }),
) {}

/** `POST /api/operators` (admin only) */
export class CreateOperatorDto extends zodDto(
  z.strictObject({
    username: z.string().regex(OPERATOR_USERNAME_PATTERN, {
      error: 'must be 2–64 letters, digits, dots, dashes or underscores',
    }),
    displayName,
    password: newPassword,
    role: z.enum(OPERATOR_ROLES),
  }),
) {}

/** `PATCH /api/operators/:id` (admin only) */
export class UpdateOperatorDto extends zodDto(
  z.strictObject({
    displayName: displayName.optional(),
    disabled: z.boolean().optional(),
    password: newPassword.optional(),
    role: z.enum(OPERATOR_ROLES).optional(),
  }),
) {}

/**
 * `POST /api/auth/password`: the signed-in operator changes their own password. 403 when
 * `currentPassword` is wrong (throttled like sign-in); every other session of the operator ends.
 */
export class ChangePasswordDto extends zodDto(
  z.strictObject({ currentPassword: z.string().min(1).max(200), newPassword }),
) {}

/**
 * `PATCH /api/auth/me`: the signed-in operator's own preferences. `language` is the interface's
 * language and the one answers are written in.
 */
export class UpdateMyPreferencesDto extends zodDto(
  z.strictObject({
    language: z.enum(OPERATOR_LANGUAGES, { error: `must be one of: ${OPERATOR_LANGUAGES.join(', ')}` }),
  }),
) {}

export interface OperatorView {
  id: string;
  username: string;
  displayName: string;
  role: OperatorRole;
  disabled: boolean;
  language: OperatorLanguage;
  createdAt: string;
}

// Kept in a file without zod so the web client's bundle can import them (see browser.ts).
export { CSRF_HEADER, CSRF_HEADER_VALUE } from './csrf';
