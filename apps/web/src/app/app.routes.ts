import type { Routes } from '@angular/router';
import { adminGuard, signedInGuard, signedOutGuard } from './auth/auth.guard';

/** Feature pages load lazily so the first paint only carries the shell and the login page. */
export const routes: Routes = [
  {
    path: 'login',
    canActivate: [signedOutGuard],
    title: $localize`:@@title.login:Sign in · Corpus Chat`,
    loadComponent: () => import('./auth/login-page').then((m) => m.LoginPage),
  },
  {
    path: '',
    canActivate: [signedInGuard],
    loadComponent: () => import('./shell/shell').then((m) => m.Shell),
    children: [
      { path: '', pathMatch: 'full', redirectTo: 'chat' },
      {
        path: 'chat',
        title: $localize`:@@title.chat:Chat · Corpus Chat`,
        loadComponent: () => import('./chat/chat-page').then((m) => m.ChatPage),
        children: [
          { path: '', loadComponent: () => import('./chat/chat-empty').then((m) => m.ChatEmpty) },
          { path: ':chatId', loadComponent: () => import('./chat/thread-view').then((m) => m.ThreadView) },
        ],
      },
      {
        path: 'reports',
        title: $localize`:@@title.reports:Reports · Corpus Chat`,
        loadComponent: () => import('./reports/reports-page').then((m) => m.ReportsPage),
      },
      {
        path: 'reports/findings',
        title: $localize`:@@title.findings:Findings · Corpus Chat`,
        loadComponent: () => import('./reports/findings-page').then((m) => m.FindingsPage),
      },
      {
        path: 'reports/findings/:findingId',
        title: $localize`:@@title.finding:Finding · Corpus Chat`,
        loadComponent: () => import('./reports/finding-detail-page').then((m) => m.FindingDetailPage),
      },
      {
        path: 'reports/:reportId',
        title: $localize`:@@reports.review.pageTitle:Report · Corpus Chat`,
        loadComponent: () => import('./reports/report-review-page').then((m) => m.ReportReviewPage),
      },
      {
        path: 'settings',
        title: $localize`:@@title.settings:Settings · Corpus Chat`,
        canActivate: [adminGuard],
        loadComponent: () => import('./settings/settings-page').then((m) => m.SettingsPage),
      },
      {
        path: 'operators',
        title: $localize`:@@title.operators:Operators · Corpus Chat`,
        canActivate: [adminGuard],
        loadComponent: () => import('./operators/operators-page').then((m) => m.OperatorsPage),
      },
      {
        path: 'audit',
        title: $localize`:@@title.audit:Audit log · Corpus Chat`,
        canActivate: [adminGuard],
        loadComponent: () => import('./audit/audit-page').then((m) => m.AuditPage),
      },
      {
        path: 'feedback',
        title: 'Feedback · Corpus Chat',
        canActivate: [adminGuard],
        loadComponent: () => import('./feedback/feedback-page').then((m) => m.FeedbackPage),
      },
      {
        path: 'account',
        title: $localize`:@@title.account:My account · Corpus Chat`,
        loadComponent: () => import('./auth/account-page').then((m) => m.AccountPage),
      },
    ],
  },
  { path: '**', redirectTo: '' },
];
