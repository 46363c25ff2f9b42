import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  ChangePasswordDto,
  LoginDto,
  OperatorView,
  UpdateMyPreferencesDto,
} from '@corpus-chat/contracts';

/** `/api/auth`: cookie session (httpOnly JWT cookie set by the API). */
@Injectable({ providedIn: 'root' })
export class AuthApi {
  private readonly http = inject(HttpClient);

  /** `GET /api/auth/me`; 401 when signed out. */
  me(): Promise<OperatorView> {
    return firstValueFrom(this.http.get<OperatorView>('/api/auth/me'));
  }

  /** `PATCH /api/auth/me`: the signed-in operator's preferences (the language); 400 for one not offered. */
  updateMe(body: UpdateMyPreferencesDto): Promise<OperatorView> {
    return firstValueFrom(this.http.patch<OperatorView>('/api/auth/me', body));
  }

  /** `POST /api/auth/login`; 401 with a generic message on wrong credentials. */
  login(body: LoginDto): Promise<OperatorView> {
    return firstValueFrom(this.http.post<OperatorView>('/api/auth/login', body));
  }

  /** `POST /api/auth/logout`: ends this session and clears the cookie. */
  logout(): Promise<void> {
    return firstValueFrom(this.http.post<void>('/api/auth/logout', {}));
  }

  /** `POST /api/auth/logout-everywhere`: ends every session of the operator and clears the cookie. */
  logoutEverywhere(): Promise<void> {
    return firstValueFrom(this.http.post<void>('/api/auth/logout-everywhere', {}));
  }

  /**
   * `POST /api/auth/password`: changes the signed-in operator's own password; the API renews this
   * session's cookie and ends every other session. 403 for a wrong current password, 429 after
   * repeated failures.
   */
  changePassword(body: ChangePasswordDto): Promise<OperatorView> {
    return firstValueFrom(this.http.post<OperatorView>('/api/auth/password', body));
  }
}
