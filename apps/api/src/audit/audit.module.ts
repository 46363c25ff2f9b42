import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditController } from './audit.controller';
import { ReadAuditInterceptor } from './read-audit.interceptor';

/**
 * `GET /api/audit` (admin only). Events are written by the feature that makes each change, in
 * its transaction (`recordAuditEvent` of `@corpus-chat/corpus-queries`); this module reads them, and
 * audits reads through API tokens and MCP (`ReadAuditInterceptor`).
 */
@Module({
  controllers: [AuditController],
  providers: [{ provide: APP_INTERCEPTOR, useClass: ReadAuditInterceptor }],
})
export class AuditModule {}
