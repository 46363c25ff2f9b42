import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { IMPORTS_QUEUE } from '@corpus-chat/contracts';
import {
  CORPUS_IMPORT_OPTIONS,
  DEFAULT_CORPUS_IMPORT_OPTIONS,
  type CorpusImportOptions,
} from './corpus-import.options';
import { CorpusOverviewController } from './corpus-overview.controller';
import { CorpusService } from './corpus.service';
import { FindingTriageController } from './finding-triage.controller';
import { FindingTriageService } from './finding-triage.service';
import { FindingsController } from './findings.controller';
import { ImportEventsGateway } from './import-events.gateway';
import { ImportsController } from './imports.controller';
import { ImportsService } from './imports.service';
import { importMulterOptions } from './import-upload';
import { ReportComparisonController } from './report-comparison.controller';
import { ReportReviewController } from './report-review.controller';
import { ReportReviewService } from './report-review.service';
import { ReportsController } from './reports.controller';

function metadataFor(options: CorpusImportOptions): ModuleMetadata {
  return {
    imports: [
      // Disk storage: multer refuses a file over the limit with 413 while it streams, a file in
      // another field with 400.
      MulterModule.register(importMulterOptions(options)),
      BullModule.registerQueue({ name: IMPORTS_QUEUE }),
    ],
    controllers: [
      ReportsController,
      ReportComparisonController,
      ReportReviewController,
      ImportsController,
      FindingTriageController,
      FindingsController,
      CorpusOverviewController,
    ],
    providers: [
      CorpusService,
      FindingTriageService,
      ReportReviewService,
      ImportsService,
      ImportEventsGateway,
      { provide: CORPUS_IMPORT_OPTIONS, useValue: options },
    ],
    exports: [CorpusService],
  };
}

/**
 * The shared corpus routes and the API's side of the `imports` queue. Use
 * `CorpusModule.forRoot({ uploadDir })`, so the limits are set in one place.
 */
@Module({})
export class CorpusModule {
  static forRoot(
    options: Partial<CorpusImportOptions> & Pick<CorpusImportOptions, 'uploadDir'>,
  ): DynamicModule {
    return { module: CorpusModule, ...metadataFor({ ...DEFAULT_CORPUS_IMPORT_OPTIONS, ...options }) };
  }
}
