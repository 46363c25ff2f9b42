import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  TestSettingsDto,
  UpdateSettingsDto,
  type SettingsTestResult,
  type SettingsView,
} from '@corpus-chat/contracts';
import { Roles } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { SettingsService } from './settings.service';

/**
 * `/api/settings` (admins only): which model back end answers chat turns. The key is never
 * returned, only whether one is set.
 */
@ApiTags('settings')
@Roles('admin')
@Controller('settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @ApiOperation({ summary: 'The model settings (admin); apiKeySet instead of the key' })
  get(): Promise<SettingsView> {
    return this.settings.get();
  }

  @Put()
  @ApiOperation({
    summary:
      'Save the model settings (admin); baseUrl must be http(s); an omitted apiKey keeps the stored one (cleared when baseUrl names another server), "" clears it',
  })
  update(
    @Body() dto: UpdateSettingsDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<SettingsView> {
    return this.settings.update(dto, operator);
  }

  @Post('test')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Check the configured (or given) model server as a turn uses it: model listed, a one-token completion, the agent's tools, the context length (admin); the stored key is sent only to the stored base URL",
  })
  test(@Body() dto: TestSettingsDto): Promise<SettingsTestResult> {
    return this.settings.test(dto ?? {});
  }
}
