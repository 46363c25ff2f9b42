import { ApplicationConfig, provideBrowserGlobalErrorListeners } from '@angular/core';
import { provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { TitleStrategy, provideRouter, withComponentInputBinding } from '@angular/router';
import { routes } from './app.routes';
import { csrfHeaderInterceptor } from './http/csrf-header.interceptor';
import { sessionExpiredInterceptor } from './auth/session-expired.interceptor';
import { UnreadTitleStrategy } from './shell/unread-title-strategy';

/** Zoneless (the Angular 21 default), router with route params bound to component inputs. */
export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideRouter(routes, withComponentInputBinding()),
    provideHttpClient(withFetch(), withInterceptors([csrfHeaderInterceptor, sessionExpiredInterceptor])),
    { provide: TitleStrategy, useClass: UnreadTitleStrategy },
  ],
};
