import { IsBoolean, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { IsOmittable } from '../validation/is-omittable';

export const OPERATOR_ROLES = ['admin', 'operator'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

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
  @Matches(/^[a-zA-Z0-9._-]{2,64}$/, { message: 'username must be 2–64 letters, digits, dots, dashes or underscores' })
  username!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(100)
  displayName!: string;

  @IsString()
  @MinLength(10, { message: 'password must be at least 10 characters' })
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
  @MinLength(10, { message: 'password must be at least 10 characters' })
  @MaxLength(200)
  password?: string;

  @IsOmittable()
  @IsIn(OPERATOR_ROLES)
  role?: OperatorRole;
}

export interface OperatorView {
  id: string;
  username: string;
  displayName: string;
  role: OperatorRole;
  disabled: boolean;
  createdAt: string;
}

// Kept in a file without class-validator so the web client's bundle can import them (see browser.ts).
export { CSRF_HEADER, CSRF_HEADER_VALUE } from './csrf';
