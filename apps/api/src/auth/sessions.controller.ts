import { Controller, Delete, Get, HttpCode, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SessionView } from '@corpus-chat/contracts';
import { UuidParam } from '../errors/id-params';
import type { AuthenticatedRequest } from './auth.guard';
import { CurrentOperator, type AuthenticatedOperator } from './current-operator';
import { SessionsService } from './sessions.service';

/** `GET /api/auth/sessions`, `DELETE /api/auth/sessions/:id`: the signed-in operator's own sessions. */
@ApiTags('auth')
@Controller('auth/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({
    summary: 'My sessions: device (user agent), address, created, last seen; which is this one',
  })
  list(
    @CurrentOperator() operator: AuthenticatedOperator,
    @Req() req: AuthenticatedRequest,
  ): Promise<SessionView[]> {
    return this.sessions.list(operator.id, req.sessionId);
  }

  /** Ends one of my sessions (this one included) and disconnects its sockets; 404 when it is not mine. */
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'End one of my sessions (its sockets disconnect; my other sessions go on)' })
  end(@CurrentOperator() operator: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    return this.sessions.end(operator.id, id);
  }
}
