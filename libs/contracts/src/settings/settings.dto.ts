import { IsIn, IsOptional, IsString, IsUrl, MaxLength, MinLength, ValidateIf } from 'class-validator';

/** `builtin` is the deterministic planner (no model server); `openai` any OpenAI-compatible server. */
export const MODEL_BACKENDS = ['builtin', 'openai'] as const;
export type ModelBackend = (typeof MODEL_BACKENDS)[number];

/** `PUT /api/settings`. An omitted `apiKey` keeps the stored one; an empty string clears it. */
export class UpdateSettingsDto {
  @IsIn(MODEL_BACKENDS)
  backend!: ModelBackend;

  @ValidateIf((o: UpdateSettingsDto) => o.backend === 'openai')
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'baseUrl must be an http(s) URL, e.g. http://localhost:11434/v1' })
  baseUrl?: string;

  @ValidateIf((o: UpdateSettingsDto) => o.backend === 'openai')
  @IsString()
  @MinLength(1, { message: 'model must name a model of the server, e.g. qwen3:8b' })
  @MaxLength(200)
  model?: string;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  apiKey?: string;
}

/**
 * `POST /api/settings/test` body (optional): values to test before saving them. Omitted fields
 * come from the stored settings (an omitted `apiKey` uses the stored key).
 */
export class TestSettingsDto {
  @IsOptional()
  @IsIn(MODEL_BACKENDS)
  backend?: ModelBackend;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: 'baseUrl must be an http(s) URL, e.g. http://localhost:11434/v1' })
  baseUrl?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model?: string;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  apiKey?: string;
}

/** `GET /api/settings`: never returns the key itself. */
export interface SettingsView {
  backend: ModelBackend;
  baseUrl: string | null;
  model: string | null;
  apiKeySet: boolean;
  updatedAt: string | null;
}

/** `POST /api/settings/test` */
export interface SettingsTestResult {
  ok: boolean;
  checks: { name: 'models' | 'completion'; ok: boolean; detail: string }[];
}
