import { Module } from '@nestjs/common';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { OperatorsController } from './operators.controller';
import { OperatorsService } from './operators.service';

/**
 * `/api/operators` (admin only) and the first-admin bootstrap at start-up. Needs the global
 * `AuthModule` and TypeORM's `DataSource`.
 */
@Module({
  controllers: [OperatorsController],
  providers: [OperatorsService, AdminBootstrapService],
  exports: [OperatorsService],
})
export class OperatorsModule {}
