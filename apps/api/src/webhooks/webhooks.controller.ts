import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CreatedWebhookEndpoint,
  CreateWebhookDto,
  type WebhookDeliveryView,
  type WebhookEndpointView,
} from '@corpus-chat/contracts';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { WebhooksService } from './webhooks.service';

/**
 * `/api/webhooks`: the signed-in operator's webhook endpoints and their deliveries. Session only
 * (no `@ReadScope()`): an API token cannot register where thread text is sent.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: 'My webhook endpoints (never their secrets)' })
  list(@CurrentOperator() operator: AuthenticatedOperator): Promise<WebhookEndpointView[]> {
    return this.webhooks.list(operator.id);
  }

  @Post()
  @ApiOperation({
    summary: 'Register a webhook endpoint for turn.done, turn.error and/or turn.cancelled',
    description:
      'The answer holds the signing secret (whsec_…), shown this once. 422 when the URL is not ' +
      'https, not allowed by WEBHOOK_URL_ALLOWLIST or resolves to a private address; 403 for ' +
      'allOperators unless admin; 409 over the limit.',
  })
  create(
    @CurrentOperator() operator: AuthenticatedOperator,
    @Body() dto: CreateWebhookDto,
  ): Promise<CreatedWebhookEndpoint> {
    return this.webhooks.create(operator, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete one of my webhook endpoints with its deliveries; 404 when unknown' })
  remove(@CurrentOperator() operator: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    return this.webhooks.remove(operator, id);
  }

  @Get('deliveries')
  @ApiOperation({ summary: 'The newest deliveries of my endpoints, with their status' })
  deliveries(@CurrentOperator() operator: AuthenticatedOperator): Promise<WebhookDeliveryView[]> {
    return this.webhooks.deliveries(operator.id);
  }

  @Post('deliveries/:id/resend')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a failed delivery again (a new retry schedule); 409 unless failed' })
  resend(@CurrentOperator() operator: AuthenticatedOperator, @UuidParam('id') id: string): Promise<void> {
    return this.webhooks.resend(operator.id, id);
  }
}
