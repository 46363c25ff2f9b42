import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { AuditQueryDto, LoginDto } from '@corpus-chat/contracts';
import { ApiQueryFrom, withValidationSchemas } from './openapi-schemas';

@Controller('x')
class ExampleController {
  @Post('login')
  login(@Body() body: LoginDto): LoginDto {
    return body;
  }

  @Get('audit')
  @ApiQueryFrom(AuditQueryDto)
  audit(@Query() query: AuditQueryDto): AuditQueryDto {
    return query;
  }
}

describe('OpenAPI schemas of the zod DTOs', () => {
  it('documents a body DTO and a query DTO from their zod schemas', async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ExampleController] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const document = withValidationSchemas(SwaggerModule.createDocument(app, new DocumentBuilder().build()));
    await app.close();
    expect(document.components?.schemas?.['LoginDto']).toMatchObject({
      type: 'object',
      required: ['username', 'password'],
      additionalProperties: false,
      properties: { username: { type: 'string', minLength: 1, maxLength: 100 } },
    });
    const parameters = document.paths['/x/audit']?.get?.parameters ?? [];
    expect(parameters).toContainEqual(
      expect.objectContaining({
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 200 }),
      }),
    );
  });
});
