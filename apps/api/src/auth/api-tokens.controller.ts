import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateApiTokenDto, type ApiTokenView, type CreatedApiToken } from '@corpus-chat/contracts';
import { UuidParam } from '../errors/id-params';
import { ApiTokensService } from './api-tokens.service';
import { CurrentOperator, type AuthenticatedOperator } from './current-operator';

/**
 * `/api/auth/tokens`: the signed-in operator's API tokens. Session only: an API token cannot list,
 * mint or revoke tokens (no `@ReadScope()`).
 */
@ApiTags('auth')
@Controller('auth/tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Get()
  @ApiOperation({ summary: 'My API tokens (never their secrets)' })
  list(@CurrentOperator() operator: AuthenticatedOperator): Promise<ApiTokenView[]> {
    return this.tokens.list(operator.id);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an API token of scope read; the answer holds its secret, shown this once',
  })
  create(
    @CurrentOperator() operator: AuthenticatedOperator,
    @Body() dto: CreateApiTokenDto,
  ): Promise<CreatedApiToken> {
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
