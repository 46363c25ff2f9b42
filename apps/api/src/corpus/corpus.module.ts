import { type DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { CORPUS_IMPORT_OPTIONS, DEFAULT_CORPUS_IMPORT_OPTIONS, type CorpusImportOptions } from './corpus-import.options';
import { CorpusOverviewController } from './corpus-overview.controller';
import { CorpusService } from './corpus.service';
import { FindingTriageController } from './finding-triage.controller';
import { FindingTriageService } from './finding-triage.service';
import { FindingsController } from './findings.controller';
import { importMulterOptions } from './import-upload';
import { ReportComparisonController } from './report-comparison.controller';
import { ReportsController } from './reports.controller';

function metadataFor(options: CorpusImportOptions): ModuleMetadata {
  return {
    imports: [
      // Memory storage (no `dest`): each file reaches the importer as a Buffer; multer refuses a
      // file over the limit with 413 before it is read whole, a file in another field with 400.
      MulterModule.register(importMulterOptions(options)),
    ],
    controllers: [ReportsController, ReportComparisonController, FindingTriageController, FindingsController, CorpusOverviewController],
    providers: [CorpusService, FindingTriageService, { provide: CORPUS_IMPORT_OPTIONS, useValue: options }],
    exports: [CorpusService],
  };
}

/**
 * `/api/reports`, `/api/findings`, `/api/corpus`: the shared corpus. Needs TypeORM's `DataSource`
 * (from `TypeOrmModule.forRoot`) and the global `AuthModule` guard. Import it as
 * `CorpusModule.forRoot()` (50 MB per file, 20 files per request) or with other limits; the class
 * itself declares nothing, so the limits are set in one place.
 */
@Module({})
export class CorpusModule {
  static forRoot(options: Partial<CorpusImportOptions> = {}): DynamicModule {
    return { module: CorpusModule, ...metadataFor({ ...DEFAULT_CORPUS_IMPORT_OPTIONS, ...options }) };
  }
}
