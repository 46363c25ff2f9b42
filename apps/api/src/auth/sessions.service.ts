import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { SessionView } from '@corpus-chat/contracts';
import {
  bumpTokenVersion,
  deleteOperatorSession,
  deleteOperatorSessionsOf,
  listOperatorSessions,
} from '@corpus-chat/persistence';
import { SocketAuthService } from './socket-auth.service';

/**
 * An operator's signed-in browsers: listed, ended one by one (with their sockets) or all at once;
 * every request reads its row, so an end applies at once everywhere.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly db: DataSource,
    private readonly sockets: SocketAuthService,
  ) {}

  async list(operatorId: string, currentSessionId: string | undefined): Promise<SessionView[]> {
    return (await listOperatorSessions(this.db, operatorId)).map((s) => ({
      id: s.id,
      userAgent: s.userAgent,
      ip: s.ip,
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      current: s.id === currentSessionId,
    }));
  }

  /**
   * Ends session `sessionId` of `operatorId` and disconnects its sockets; 404 when the operator holds no
   * such session.
   */
  async end(operatorId: string, sessionId: string): Promise<void> {
    if (!(await this.endIfLive(operatorId, sessionId)))
      throw new NotFoundException('You have no session with this id (it may have ended already).');
  }

  /** Like `end`, but a session that already ended is no error (sign-out); answers whether it was live. */
  async endIfLive(operatorId: string, sessionId: string): Promise<boolean> {
    if (!(await deleteOperatorSession(this.db, operatorId, sessionId))) return false;
    this.sockets.disconnectSessions([sessionId]);
    this.logger.log({ msg: 'session ended', operatorId, sessionId });
    return true;
  }

  /**
   * Ends every session of `operatorId` and disconnects all its sockets. The token version goes up
   * too, so a cookie of a session that signed in meanwhile is refused as well.
   */
  async endAll(operatorId: string): Promise<void> {
    const ended = await this.db.transaction(async (tx) => {
      const ids = await deleteOperatorSessionsOf(tx, operatorId);
      await bumpTokenVersion(tx, operatorId);
      return ids;
    });
    this.sockets.disconnectOperator(operatorId);
    this.logger.log({ msg: 'signed out everywhere', operatorId, sessions: ended.length });
  }
}
