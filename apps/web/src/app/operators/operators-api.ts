import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { CreateOperatorDto, OperatorView, UpdateOperatorDto } from '@corpus-chat/contracts';

/** `/api/operators` (admin only): operator accounts. */
@Injectable({ providedIn: 'root' })
export class OperatorsApi {
  private readonly http = inject(HttpClient);

  /** Every operator, oldest first. */
  list(): Promise<OperatorView[]> {
    return firstValueFrom(this.http.get<OperatorView[]>('/api/operators'));
  }

  /** 409 when the username is taken (ignoring case); 400 naming the field for a bad value. */
  create(body: CreateOperatorDto): Promise<OperatorView> {
    return firstValueFrom(this.http.post<OperatorView>('/api/operators', body));
  }

  /** Updates an operator (errors as the API's `OperatorsService.update`). */
  update(id: string, body: UpdateOperatorDto): Promise<OperatorView> {
    return firstValueFrom(this.http.patch<OperatorView>(`/api/operators/${id}`, body));
  }
}
