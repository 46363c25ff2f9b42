import { IsBoolean, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable';
import {
  OPERATOR_LANGUAGES,
  OPERATOR_PASSWORD_MIN_LENGTH,
  OPERATOR_ROLES,
  OPERATOR_USERNAME_PATTERN,
  type OperatorLanguage,
  type OperatorRole,
} from './operator-roles';

export {
  OPERATOR_LANGUAGES,
  OPERATOR_PASSWORD_MIN_LENGTH,
  OPERATOR_ROLES,
  OPERATOR_USERNAME_PATTERN,
  type OperatorLanguage,
  type OperatorRole,
} from './operator-roles';

/** `POST /api/auth/login` */
export class LoginDto {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  username!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(200)
  password!: string;
}

/** `POST /api/operators` (admin only) */
export class CreateOperatorDto {
  @IsString()
  @Matches(OPERATOR_USERNAME_PATTERN, {
    message: 'username must be 2–64 letters, digits, dots, dashes or underscores',
  })
  username!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  displayName!: string;

  @IsString()
  @MinLength(OPERATOR_PASSWORD_MIN_LENGTH, {
    message: `password must be at least ${OPERATOR_PASSWORD_MIN_LENGTH} characters`,
  })
  @MaxLength(200)
  password!: string;

  @IsIn(OPERATOR_ROLES)
  role!: OperatorRole;
}

/** `PATCH /api/operators/:id` (admin only) */
export class UpdateOperatorDto {
  @IsOmittable()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  displayName?: string;

  @IsOmittable()
  @IsBoolean()
  disabled?: boolean;

  @IsOmittable()
  @IsString()
  @MinLength(OPERATOR_PASSWORD_MIN_LENGTH, {
    message: `password must be at least ${OPERATOR_PASSWORD_MIN_LENGTH} characters`,
  })
  @MaxLength(200)
  password?: string;

  @IsOmittable()
  @IsIn(OPERATOR_ROLES)
  role?: OperatorRole;
}

/**
 * `POST /api/auth/password`: the signed-in operator changes their own password. 403 when
 * `currentPassword` is wrong (throttled like sign-in); every other session of the operator ends.
 */
export class ChangePasswordDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  currentPassword!: string;

  @IsString()
  @MinLength(OPERATOR_PASSWORD_MIN_LENGTH, {
    message: `newPassword must be at least ${OPERATOR_PASSWORD_MIN_LENGTH} characters`,
  })
  @MaxLength(200)
  newPassword!: string;
}

/**
 * `PATCH /api/auth/me`: the signed-in operator's own preferences. `language` is the interface's
 * language and the one answers are written in.
 */
export class UpdateMyPreferencesDto {
  @IsIn(OPERATOR_LANGUAGES, { message: `language must be one of: ${OPERATOR_LANGUAGES.join(', ')}` })
  language!: OperatorLanguage;
}

export interface OperatorView {
  id: string;
  username: string;
  displayName: string;
  role: OperatorRole;
  disabled: boolean;
  language: OperatorLanguage;
  createdAt: string;
}

// Kept in a file without class-validator so the web client's bundle can import them (see browser.ts).
export { CSRF_HEADER, CSRF_HEADER_VALUE } from './csrf';
