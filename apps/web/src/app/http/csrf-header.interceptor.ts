import type { HttpInterceptorFn } from '@angular/common/http';
import { CSRF_HEADER, CSRF_HEADER_VALUE } from '@corpus-chat/contracts';

/** Adds `X-Requested-With: XMLHttpRequest`, which the API requires of state-changing requests (CSRF). */
export const csrfHeaderInterceptor: HttpInterceptorFn = (req, next) =>
  next(req.url.startsWith('/api/') ? req.clone({ setHeaders: { [CSRF_HEADER]: CSRF_HEADER_VALUE } }) : req);
