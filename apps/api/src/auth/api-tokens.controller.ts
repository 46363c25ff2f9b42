import { Body, Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateApiTokenDto, type ApiTokenView, type CreatedApiToken } from '@corpus-chat/contracts';
import { UuidParam } from '../errors/id-params';
import { ApiTokensService } from './api-tokens.service';
import { AuthService } from './auth.service';
import { CurrentOperator, type AuthenticatedOperator } from './current-operator';

/**
 * `/api/auth/tokens`: the signed-in operator's API tokens. Session only: an API token cannot list,
 * mint or revoke tokens (no `@ReadScope()`).
 */
@ApiTags('auth')
@Controller('auth/tokens')
export class ApiTokensController {
  constructor(
    private readonly tokens: ApiTokensService,
    private readonly auth: AuthService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'My API tokens (never their secrets)' })
  list(@CurrentOperator() operator: AuthenticatedOperator): Promise<ApiTokenView[]> {
    return this.tokens.list(operator.id);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an API token of scope read; the answer holds its secret, shown this once',
    description:
      'Needs the current password (403 when wrong, 429 under the sign-in slow-down). Expires after 90 days unless expiresInDays says otherwise (at most 365).',
  })
  async create(
    @CurrentOperator() operator: AuthenticatedOperator,
    @Body() dto: CreateApiTokenDto,
    @Req() req: Request,
  ): Promise<CreatedApiToken> {
    await this.auth.confirmPassword(operator.id, dto.password, req.ip ?? 'unknown');
    return this.tokens.create(operator, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke one of my API tokens (refused from the next request on); 404 when unknown',
  })
  revoke(@CurrentOperator() operator: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    return this.tokens.revoke(operator, id);
  }
}
