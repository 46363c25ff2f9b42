import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { McpController } from './mcp.controller';

/** `/mcp`: the chat's corpus tools for other agents, through the same `CorpusTools`. */
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
