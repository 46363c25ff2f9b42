import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { McpController } from './mcp.controller';

/**
 * `/mcp`: the chat's corpus tools for other agents (IDE assistants, desktop chat clients), through
 * the same `CorpusTools` the agent-worker runs. Needs TypeORM's `DataSource` and the global
 * `AuthModule` guard.
 */
@Module({
  controllers: [McpController],
  providers: [
    {
      provide: CorpusTools,
      inject: [DataSource],
      useFactory: (db: DataSource) => new CorpusTools(db, defaultCorpusQueries, defaultReadOnly),
    },
  ],
})
export class McpModule {}
