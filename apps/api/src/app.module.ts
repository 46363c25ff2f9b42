import path from 'node:path';
import { type DynamicModule, Module } from '@nestjs/common';
import { CHAT_ATTACHMENT_MAX_BYTES, CHAT_TURNS_QUEUE, IMPORTS_QUEUE } from '@corpus-chat/contracts';
import { MetricsModule } from '@corpus-chat/server-core';
import { ChatAttachmentsModule } from './attachments/chat-attachments.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ChatModule } from './chat/chat.module';
import { CorpusModule } from './corpus/corpus.module';
import { FeedbackModule } from './feedback/feedback.module';
import { ApiCoreModule } from './config/api-core.module';
import type { ApiEnv } from './config/api-env';
import { HealthModule } from './health/health.module';
import { McpModule } from './mcp/mcp.module';
import { OperatorsModule } from './operators/operators.module';
import { SettingsModule } from './settings/settings.module';
import { WebStaticModule } from './web-static/web-static.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** The API; `forRoot(env)` adds infrastructure and auth, so tests can run several in one process. */
@Module({
  imports: [
    HealthModule,
    OperatorsModule,
    ChatModule,
    SettingsModule,
    McpModule,
    AuditModule,
    FeedbackModule,
    WebhooksModule,
  ],
})
export class AppModule {
  static forRoot(env: ApiEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ApiCoreModule.forRoot(env),
        AuthModule.forRoot(env),
        WebStaticModule.forRoot(env.WEB_DIST_DIR),
        CorpusModule.forRoot({
          maxImportBytes: env.IMPORT_MAX_BYTES,
          maxQueuedImports: env.IMPORT_QUEUE_PER_OPERATOR,
          maxQueuedBytes: env.IMPORT_QUEUED_BYTES_PER_OPERATOR,
          uploadDir: path.resolve(env.DATA_DIR, 'uploads'),
        }),
        MetricsModule.forRoot({ port: env.METRICS_PORT, queueNames: [CHAT_TURNS_QUEUE, IMPORTS_QUEUE] }),
        ChatAttachmentsModule.forRoot({
          maxBytes: Math.min(CHAT_ATTACHMENT_MAX_BYTES, env.IMPORT_MAX_BYTES),
          uploadDir: path.resolve(env.DATA_DIR, 'uploads'),
          quota: { imports: env.IMPORT_QUEUE_PER_OPERATOR, bytes: env.IMPORT_QUEUED_BYTES_PER_OPERATOR },
        }),
      ],
    };
  }
}
