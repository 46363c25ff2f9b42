import { SetMetadata } from '@nestjs/common';
import type { OperatorRole } from '@corpus-chat/contracts';

export const IS_PUBLIC_KEY = 'auth:isPublic';
export const ROLES_KEY = 'auth:roles';

/**
 * Marks a route (or a controller) as reachable without signing in (login, health). Every other
 * route requires a session: the global `AuthGuard` fails closed.
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC_KEY, true);

/**
 * Restricts a route or controller to operators holding one of `roles` (`@Roles('admin')`); others
 * get 403. Checked by the global `AuthGuard` after authentication.
 */
export const Roles = (...roles: OperatorRole[]): MethodDecorator & ClassDecorator =>
  SetMetadata(ROLES_KEY, roles);

export const READ_SCOPE_KEY = 'auth:readScope';

/**
 * Opens one route to `read` API tokens besides sessions; only for handlers that change nothing.
 * A method decorator on purpose: a controller-wide mark would open its writes too.
 */
export const ReadScope = (): MethodDecorator => SetMetadata(READ_SCOPE_KEY, true);
