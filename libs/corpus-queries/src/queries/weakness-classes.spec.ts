import fs from 'node:fs';
import path from 'node:path';
import { sharedDir } from '@corpus-chat/ingest/testing';
import { WEAKNESS_CLASSES, namedWeaknessClasses } from './weakness-classes';

const names = (text: string) => namedWeaknessClasses(text).map((c) => c.name);

test('the project copy of the weakness-class table equals shared/corpus/weakness-classes.json', () => {
  const shared = JSON.parse(
    fs.readFileSync(path.join(sharedDir(), 'corpus', 'weakness-classes.json'), 'utf8'),
  );
  expect(WEAKNESS_CLASSES).toEqual(shared.classes);
});

test('a text names a class by its name or an alias, as whole words, with a plural s on the last word', () => {
  expect(names('SQL injection')).toEqual(['SQL injection']);
  expect(names('sqli')).toEqual(['SQL injection']);
  expect(names('How many SQL injections?')).toEqual(['SQL injection']);
  expect(names('hardcoded passwords')).toEqual(['hard-coded credentials']);
  expect(names('XSS')).toEqual(['cross-site scripting']);
  expect(names('stored xss and csrf')).toEqual(['cross-site scripting', 'cross-site request forgery']);
  expect(names('OS command injection')).toEqual(['OS command injection']);
});

test('parts of words and unrelated texts name no class', () => {
  expect(names('source code')).toEqual([]); // contains "rce" inside a word
  expect(names('windows')).toEqual([]); // contains "dos"
  expect(names('sqlite')).toEqual([]);
  expect(names('jQuery')).toEqual([]);
  expect(names('cookies')).toEqual([]);
});
