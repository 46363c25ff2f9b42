import { createParamDecorator, type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import type { OperatorLanguage, OperatorRole } from '@corpus-chat/contracts';

/** The signed-in operator, set on `request.operator` (REST) and `socket.data.operator` (Socket.IO) by the auth layer. */
export interface AuthenticatedOperator {
  id: string;
  username: string;
  displayName: string;
  role: OperatorRole;
  /** The language answers are written in, read with the operator's row on every request. */
  language: OperatorLanguage;
}

/**
 * Parameter decorator: the operator of the current request. Throws 401 when the auth layer set
 * none (a route that forgot its guard fails closed).
 */
export const CurrentOperator = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthenticatedOperator => {
    const operator =
      ctx.getType() === 'ws'
        ? ctx.switchToWs().getClient<{ data?: { operator?: AuthenticatedOperator } }>().data?.operator
        : ctx.switchToHttp().getRequest<{ operator?: AuthenticatedOperator }>().operator;
    if (!operator) throw new UnauthorizedException('Sign in first.');
    return operator;
  },
);
