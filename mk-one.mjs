import { Marked } from 'marked';
const m = new Marked({ gfm: true, breaks: true, async: false, renderer: { html: ({text}) => text.replace(/</g,'&lt;') } });
const N = Number(process.argv[3] ?? 50000);
const cases = {
  brlinks: () => '[a]('.repeat(N/4),
  stars: () => '*'.repeat(N),
  starsA: () => '*a'.repeat(N/2),
  under: () => '_a'.repeat(N/2),
  backticks: () => '`'.repeat(N),
  tildes: () => '~'.repeat(N),
  list: () => '- '.repeat(N/2),
  lt: () => '<'.repeat(N),
  ltA: () => '<a'.repeat(N/2),
  autolink: () => 'www.' + 'a.'.repeat(N/2),
  email: () => 'a'.repeat(N) + '@',
  table: () => '|'.repeat(N) + '\n' + '|-'.repeat(N/2),
  emph: () => '**a'.repeat(N/3),
  lbangs: () => '!['.repeat(N/2),
  spaces: () => 'a' + ' '.repeat(N) + 'a',
  backslash: () => '\\'.repeat(N),
  links: () => '[a](<'.repeat(N/5),
  linksp: () => '[a](' + ' '.repeat(N),
  linkparen: () => '[a](' + '('.repeat(N),
  delim: () => '_*'.repeat(N/2),
  nestlist: () => Array.from({length: 3000}, (_, i) => ' '.repeat(i*2) + '- a').join('\n'),
};
const k = process.argv[2]; const v = cases[k]();
const t = performance.now(); try { m.parse(v) } catch (e) { console.log(k, "THROWS", e.message.slice(0,40)) }
console.log(k.padEnd(12), v.length, (performance.now() - t).toFixed(0) + ' ms');
