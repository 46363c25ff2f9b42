import { inject } from '@angular/core';
import type { CanActivateFn } from '@angular/router';
import { Router } from '@angular/router';
import { AuthStore } from './auth-store';

/** Lets signed-in operators through; sends everyone else to `/login?returnUrl=…`. */
export const signedInGuard: CanActivateFn = async (_route, state) => {
  const router = inject(Router);
  const session = await inject(AuthStore).loadSession();
  if (session.status === 'signed-in') return true;
  return router.createUrlTree(['/login'], {
    queryParams: state.url && state.url !== '/' ? { returnUrl: state.url } : {},
  });
};

/** Keeps a signed-in operator away from the login page. */
export const signedOutGuard: CanActivateFn = async () => {
  const session = await inject(AuthStore).loadSession();
  return session.status === 'signed-in' ? inject(Router).createUrlTree(['/chat']) : true;
};

/**
 * Admin-only pages (Settings, Operators): other operators go to the chat, which says why
 * (`/chat?denied=settings`, see `ChatEmpty`), instead of a page that would only say "not
 * allowed". Runs under `signedInGuard`, so the session is loaded.
 */
export const adminGuard: CanActivateFn = async (_route, state) => {
  const auth = inject(AuthStore);
  const router = inject(Router);
  await auth.loadSession();
  if (auth.isAdmin()) return true;
  const page = state.url.split(/[?#]/)[0].replace(/^\/+/, '').split('/')[0];
  return router.createUrlTree(['/chat'], { queryParams: page ? { denied: page } : {} });
};
