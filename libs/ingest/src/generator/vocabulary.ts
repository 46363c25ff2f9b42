/**
 * Weakness templates for the synthetic corpus, with CWE ids and severity mixes. The benchmark's
 * terms have controlled frequencies ("ldap" ~0.9 %, "deserialization" ~0.7 %, "cookie" ~10 %,
 * "application" ~45 %) and must not appear elsewhere here or in `scenery.ts`.
 */

/** Weights for critical, high, medium, low, info. */
export type SeverityWeights = [number, number, number, number, number];

export interface WeaknessTemplate {
  /** Relative frequency among findings. */
  weight: number;
  cwe: number[];
  severity: SeverityWeights;
  titles: string[];
  details: string[];
  impacts: string[];
  vectors?: string[];
  mitre?: string[];
}

/** Opening sentences; the first (weight 0.45) carries the very common term. */
export const OPENINGS: { weight: number; text: string[] }[] = [
  { weight: 0.45, text: ['The application', 'This web application', 'The application under test'] },
  {
    weight: 0.55,
    text: [
      'The service',
      'The endpoint',
      'The component',
      'The backend module',
      'The request handler',
      'The API gateway',
    ],
  },
];

/** Extra sentence (3.5 % of non-cookie findings) that mentions the common term. */
export const COOKIE_ASIDE = 'The session cookie issued at sign-in is also sent with this request.';

export const WEAKNESSES: WeaknessTemplate[] = [
  {
    weight: 5,
    cwe: [89],
    severity: [15, 55, 25, 5, 0],
    titles: [
      'SQL injection in the {component}',
      'SQL Injection via the {param} parameter',
      'Blind SQL injection (time based) in {path}',
      'Formatted SQL string built from user input',
    ],
    details: [
      'builds a SQL query by concatenating the {param} parameter, so a crafted value changes the query logic.',
      'passes unsanitised input from {param} into a database query; boolean and time-based payloads altered the response.',
    ],
    impacts: [
      'An attacker can read or modify any row of the database, including password hashes.',
      'Full read access to customer records and possible command execution through stored procedures.',
    ],
    vectors: ['Unauthenticated HTTP request with a crafted {param} value.'],
    mitre: ['T1190'],
  },
  {
    weight: 6,
    cwe: [79],
    severity: [2, 30, 50, 15, 3],
    titles: [
      'Cross-site scripting (reflected) in {path}',
      'Stored XSS in the {component}',
      'DOM-based cross-site scripting via location.hash',
      'Reflected XSS through the {param} parameter',
    ],
    details: [
      'echoes the {param} parameter into the HTML response without output encoding.',
      'renders user-supplied markup from the {component} without escaping, so script runs in other users\u2019 browsers.',
    ],
    impacts: [
      'Session hijacking and actions performed on behalf of the victim.',
      'Theft of tokens stored in the browser and defacement of the page.',
    ],
    vectors: ['A victim opens a link with a script payload in {param}.'],
    mitre: ['T1189'],
  },
  {
    weight: 2.5,
    cwe: [78],
    severity: [30, 50, 15, 5, 0],
    titles: [
      'OS command injection in the {component}',
      'Remote command execution via the {param} parameter',
      'Shell command built from user input',
    ],
    details: [
      'passes the {param} parameter to a shell without escaping; `;id` in the value executed a second command.',
    ],
    impacts: ['Arbitrary commands run with the privileges of the web server.'],
    vectors: ['Crafted {param} value sent to {path}.'],
    mitre: ['T1059'],
  },
  {
    weight: 2,
    cwe: [22],
    severity: [5, 35, 45, 15, 0],
    titles: [
      'Path traversal in the {component}',
      'Directory traversal via the {param} parameter',
      'Arbitrary file read through ../ sequences',
    ],
    details: [
      'joins the {param} parameter to a base directory without normalising it, so ../../etc/passwd is returned.',
    ],
    impacts: ['Disclosure of configuration files, keys and source code.'],
    vectors: ['GET {path}?{param}=../../../../etc/passwd'],
    mitre: ['T1083'],
  },
  {
    weight: 1.5,
    cwe: [918],
    severity: [10, 45, 35, 10, 0],
    titles: ['Server-side request forgery in the {component}', 'SSRF via the {param} URL parameter'],
    details: [
      'fetches the URL given in {param} from the server, including internal addresses such as 169.254.169.254.',
    ],
    impacts: ['Access to cloud metadata credentials and internal services.'],
    mitre: ['T1190'],
  },
  {
    weight: 1,
    cwe: [611],
    severity: [10, 50, 35, 5, 0],
    titles: ['XML external entity (XXE) processing in the {component}', 'XXE injection in uploaded XML'],
    details: ['parses uploaded XML with external entities enabled; a DOCTYPE payload read local files.'],
    impacts: ['Local file disclosure and server-side request forgery.'],
  },
  {
    weight: 0.6,
    cwe: [502],
    severity: [40, 45, 15, 0, 0],
    titles: [
      'Insecure deserialization of Java objects in the {component}',
      'Unsafe deserialization of YAML input',
      'Deserialization of untrusted data via the {param} parameter',
    ],
    details: [
      'deserializes data from the {param} parameter with a gadget-capable library; a ysoserial payload executed code.',
    ],
    impacts: ['Remote code execution during deserialization.'],
    mitre: ['T1190'],
  },
  {
    weight: 2.5,
    cwe: [352],
    severity: [0, 10, 55, 30, 5],
    titles: [
      'Cross-site request forgery on the {component}',
      'Absence of anti-CSRF tokens',
      'CSRF token not validated on state-changing request',
    ],
    details: ['accepts state-changing POST requests without a synchronizer token or origin check.'],
    impacts: ['A malicious site can change the victim\u2019s account settings.'],
  },
  {
    weight: 2,
    cwe: [601],
    severity: [0, 5, 50, 40, 5],
    titles: ['Open redirect via the {param} parameter', 'Unvalidated redirect after sign-in'],
    details: ['redirects to any URL given in {param}, which phishing links can abuse.'],
    impacts: ['Credible phishing links that start on a trusted domain.'],
  },
  {
    weight: 3,
    cwe: [798, 259],
    severity: [15, 45, 30, 10, 0],
    titles: [
      'Hard-coded credentials in {file}',
      'Hardcoded password in configuration',
      'AWS access key committed to the repository',
      'Private key found in source code',
    ],
    details: ['contains a secret literal in {file}; anyone with read access to the code can use it.'],
    impacts: ['Anyone with access to the code can authenticate as the service account.'],
  },
  {
    weight: 3,
    cwe: [327, 328],
    severity: [0, 15, 50, 30, 5],
    titles: [
      'Weak hash algorithm (MD5) used for passwords',
      'Use of a broken cryptographic algorithm (DES)',
      'Weak cipher suites enabled on TLS endpoint',
      'SHA-1 used for signatures',
    ],
    details: ['uses an algorithm that is no longer considered secure for this purpose.'],
    impacts: ['Offline cracking of stored hashes or decryption of captured traffic.'],
  },
  {
    weight: 2,
    cwe: [295],
    severity: [0, 30, 50, 20, 0],
    titles: [
      'Improper certificate validation in HTTP client',
      'TLS verification disabled for outbound requests',
    ],
    details: [
      'creates an HTTP client that accepts any certificate, so a man-in-the-middle can read and alter traffic.',
    ],
    impacts: ['Interception of credentials sent to upstream services.'],
  },
  {
    weight: 3,
    cwe: [200],
    severity: [0, 5, 35, 40, 20],
    titles: [
      'Information disclosure in error messages',
      'Stack trace returned to the client',
      'Server version disclosed in response headers',
      'Sensitive data exposure in the {component}',
    ],
    details: [
      'returns internal details (stack traces, versions, file paths) that help an attacker plan further attacks.',
    ],
    impacts: ['Reconnaissance information for targeted attacks.'],
  },
  {
    weight: 3,
    cwe: [284, 639, 862],
    severity: [5, 45, 40, 10, 0],
    titles: [
      'Insecure direct object reference on {path}',
      'Missing authorization check in the {component}',
      'Broken access control: user can read other users\u2019 orders',
    ],
    details: [
      'returns the record named by the {param} parameter without checking that it belongs to the signed-in user.',
    ],
    impacts: ['Any user can read or modify other customers\u2019 data.'],
    mitre: ['T1078'],
  },
  {
    weight: 1.5,
    cwe: [287, 306],
    severity: [20, 45, 30, 5, 0],
    titles: ['Authentication bypass in the {component}', 'Missing authentication for critical function'],
    details: ['exposes an administrative operation without requiring a session.'],
    impacts: ['Unauthenticated users can perform administrative actions.'],
  },
  {
    weight: 6,
    cwe: [1021],
    severity: [0, 0, 45, 45, 10],
    titles: [
      'Missing anti-clickjacking header',
      'X-Frame-Options header not set',
      'Content Security Policy frame-ancestors missing',
    ],
    details: [
      'can be framed by another site because neither X-Frame-Options nor CSP frame-ancestors is set.',
    ],
    impacts: ['UI redressing attacks that trick users into clicking hidden buttons.'],
  },
  {
    weight: 8,
    cwe: [693],
    severity: [0, 0, 40, 35, 25],
    titles: [
      'Content Security Policy (CSP) header not set',
      'Strict-Transport-Security header not set',
      'X-Content-Type-Options header missing',
      'Permissions Policy header not set',
    ],
    details: ['does not send a recommended security header on its responses.'],
    impacts: ['Weaker browser-side defence in depth against injection and downgrade attacks.'],
  },
  {
    weight: 3,
    cwe: [614],
    severity: [0, 0, 30, 60, 10],
    titles: ['Cookie without Secure flag', 'Session cookie sent over plain HTTP'],
    details: ['sets a cookie without the Secure attribute, so it can travel over unencrypted connections.'],
    impacts: ['Session cookie theft on untrusted networks.'],
  },
  {
    weight: 2.5,
    cwe: [1004],
    severity: [0, 0, 25, 65, 10],
    titles: ['Cookie without HttpOnly flag', 'Session cookie readable from JavaScript'],
    details: ['sets a cookie that scripts can read because the HttpOnly attribute is missing.'],
    impacts: ['Cross-site scripting can steal the session cookie.'],
  },
  {
    weight: 1,
    cwe: [1275],
    severity: [0, 0, 20, 60, 20],
    titles: ['Cookie with SameSite attribute None', 'Cookie without SameSite attribute'],
    details: ['issues a cookie that browsers attach to cross-site requests.'],
    impacts: ['Cross-site request forgery becomes easier.'],
  },
  {
    weight: 10,
    cwe: [1104, 937],
    severity: [8, 30, 40, 20, 2],
    titles: [
      '{pkg}: vulnerable version {ver} in use',
      'Outdated third-party library {pkg} {ver}',
      'Known vulnerability in {pkg} {ver}',
    ],
    details: [
      'bundles {pkg} {ver}, which has published advisories; upgrading to a fixed release resolves them.',
    ],
    impacts: ['Exploitation of a publicly documented flaw in a dependency.'],
  },
  {
    weight: 3,
    cwe: [400, 770],
    severity: [0, 25, 50, 20, 5],
    titles: [
      'Denial of service through uncontrolled resource consumption',
      'Regular expression denial of service (ReDoS) in {pkg}',
      'No rate limiting on the {component}',
    ],
    details: [
      'performs unbounded work for a single request, so a small number of requests exhausts CPU or memory.',
    ],
    impacts: ['Service unavailability for all users.'],
  },
  {
    weight: 2,
    cwe: [120, 787],
    severity: [15, 50, 30, 5, 0],
    titles: [
      'Buffer overflow in {file}',
      'Out-of-bounds write in image decoder',
      'Stack-based buffer overflow via strcpy',
    ],
    details: ['copies input into a fixed-size buffer without checking its length.'],
    impacts: ['Memory corruption leading to crashes or code execution.'],
  },
  {
    weight: 1,
    cwe: [416],
    severity: [15, 55, 25, 5, 0],
    titles: ['Use after free in {file}', 'Dangling pointer dereference after free'],
    details: ['uses memory after it was released, which an attacker can influence.'],
    impacts: ['Memory corruption and possible code execution.'],
  },
  {
    weight: 1.5,
    cwe: [476],
    severity: [0, 10, 40, 45, 5],
    titles: ['NULL pointer dereference in {file}', 'Possible null dereference of a method result'],
    details: ['dereferences a value that can be null on an error path.'],
    impacts: ['Process crash (denial of service).'],
  },
  {
    weight: 1,
    cwe: [362],
    severity: [0, 20, 50, 30, 0],
    titles: ['Race condition in balance update', 'Time-of-check time-of-use race on temporary file'],
    details: ['checks and then uses a resource without holding a lock, so concurrent requests interleave.'],
    impacts: ['Double spending or file replacement by a local attacker.'],
  },
  {
    weight: 1,
    cwe: [117],
    severity: [0, 0, 30, 60, 10],
    titles: ['Log injection via the {param} parameter', 'Unsanitised input written to audit log'],
    details: ['writes the {param} parameter to the log without neutralising line breaks.'],
    impacts: ['Forged log entries that mislead incident responders.'],
  },
  {
    weight: 0.8,
    cwe: [90],
    severity: [5, 45, 40, 10, 0],
    titles: ['LDAP injection in directory search'],
    details: ['builds an LDAP filter from the {param} parameter.'],
    impacts: ['Enumeration of directory accounts and authentication bypass.'],
  },
  {
    weight: 1,
    cwe: [943],
    severity: [10, 50, 35, 5, 0],
    titles: ['NoSQL injection in MongoDB query', 'Operator injection in the {param} filter'],
    details: [
      'passes a JSON object from {param} straight into a MongoDB query, so $ne and $gt operators are accepted.',
    ],
    impacts: ['Authentication bypass and data exposure.'],
  },
  {
    weight: 4,
    cwe: [],
    severity: [0, 0, 10, 30, 60],
    titles: [
      'Technology detected: {pkg}',
      'Directory listing enabled on {path}',
      'Robots.txt discloses hidden paths',
      'Informational: HTTP TRACE method enabled',
      'TLS certificate expires soon',
    ],
    details: ['was observed during the scan; review whether it is expected.'],
    impacts: ['Little direct impact; useful to an attacker for reconnaissance.'],
  },
  {
    weight: 2,
    cwe: [16],
    severity: [0, 10, 45, 35, 10],
    titles: [
      'Container runs as root user',
      'Kubernetes pod without resource limits',
      'Privileged container allowed',
      'Dockerfile uses the latest tag',
    ],
    details: ['is configured in a way that widens the blast radius of a compromise.'],
    impacts: ['Easier privilege escalation from a compromised workload.'],
  },
];
