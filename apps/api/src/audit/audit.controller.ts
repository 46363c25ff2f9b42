import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AuditQueryDto, type AuditPage } from '@corpus-chat/contracts';
import { listAuditEvents } from '@corpus-chat/persistence';
import { Roles } from '../auth/auth.decorators';
import { ApiQueryFrom } from '../openapi-schemas';

/** `/api/audit` (admins only): who imported, archived, triaged, edited or reconfigured what, and when. */
@ApiTags('audit')
@Roles('admin')
@Controller('audit')
export class AuditController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({
    summary:
      'Audit events, newest first by time, filtered by action, operator (actorId), subject and date ' +
      '(from, to); page with cursor=nextCursor (admin)',
  })
  @ApiQueryFrom(AuditQueryDto)
  list(@Query() query: AuditQueryDto): Promise<AuditPage> {
    return listAuditEvents(this.dataSource.manager, query);
  }
}
