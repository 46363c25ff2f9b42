import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller';
import { SETTINGS_ENV, loadSettingsEnv } from './settings.env';
import { SettingsService } from './settings.service';

/** `/api/settings` (admin only). Needs TypeORM's `DataSource` and the global `AuthModule` guard. */
@Module({
  controllers: [SettingsController],
  providers: [SettingsService, { provide: SETTINGS_ENV, useFactory: () => loadSettingsEnv() }],
  exports: [SettingsService],
})
export class SettingsModule {}
