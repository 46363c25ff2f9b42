import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';

/**
 * `GET /api/audit` (admin only). Events are written by the feature that makes each change, in
 * its transaction (`recordAuditEvent` of `@corpus-chat/corpus-queries`); this module only reads.
 */
@Module({ controllers: [AuditController] })
export class AuditModule {}
