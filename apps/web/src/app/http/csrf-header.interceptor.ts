import type { HttpInterceptorFn } from '@angular/common/http';
import { CSRF_HEADER, CSRF_HEADER_VALUE } from '@corpus-chat/contracts';

/**
 * Adds `X-Requested-With: XMLHttpRequest` to every API request: the API refuses state-changing
 * requests without it (a cross-site form cannot send a custom header), so the cookie session is
 * safe against CSRF.
 */
export const csrfHeaderInterceptor: HttpInterceptorFn = (req, next) =>
  next(req.url.startsWith('/api/') ? req.clone({ setHeaders: { [CSRF_HEADER]: CSRF_HEADER_VALUE } }) : req);
