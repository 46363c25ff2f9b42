import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateOperatorDto, UpdateOperatorDto, type OperatorView } from '@corpus-chat/contracts';
import { Roles } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { OperatorsService } from './operators.service';

/** `/api/operators`: admins create, list, disable, re-enable, rename, promote and reset operators. */
@ApiTags('operators')
@Roles('admin')
@Controller('operators')
export class OperatorsController {
  constructor(private readonly operators: OperatorsService) {}

  @Get()
  @ApiOperation({ summary: 'List operators (admin)' })
  list(): Promise<OperatorView[]> {
    return this.operators.list();
  }

  @Post()
  @ApiOperation({ summary: 'Create an operator (admin); 409 when the username is taken' })
  create(
    @Body() dto: CreateOperatorDto,
    @CurrentOperator() actor: AuthenticatedOperator,
  ): Promise<OperatorView> {
    return this.operators.create(dto, actor);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Rename, change role, disable/enable or reset the password of an operator (admin)',
  })
  update(
    @UuidParam('id') id: string,
    @Body() dto: UpdateOperatorDto,
    @CurrentOperator() actor: AuthenticatedOperator,
  ): Promise<OperatorView> {
    return this.operators.update(id, dto, actor);
  }
}
