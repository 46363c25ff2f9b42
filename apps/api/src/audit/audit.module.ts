import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AuditController } from './audit.controller';
import { ReadAuditInterceptor } from './read-audit.interceptor';

/** `GET /api/audit` (admin only); features write their events in their own transactions. */
@Module({
  controllers: [AuditController],
  providers: [{ provide: APP_INTERCEPTOR, useClass: ReadAuditInterceptor }],
})
export class AuditModule {}
