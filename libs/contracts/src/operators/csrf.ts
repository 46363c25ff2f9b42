/** Header every state-changing request must carry (CSRF defence for the cookie session). */
export const CSRF_HEADER = 'X-Requested-With';
export const CSRF_HEADER_VALUE = 'XMLHttpRequest';
