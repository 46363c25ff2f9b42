import { parseReportFile } from './importers/parse-report';
const cases = [
  `<?xml version="1.0"?><!DOCTYPE issues [<!ENTITY xxe SYSTEM "file:///etc/hostname">]><issues burpVersion="2"><issue><type>1</type><name>&xxe;</name><host>h</host><path>/p</path><location>/p</location><severity>High</severity></issue></issues>`,
  `<?xml version="1.0"?><!DOCTYPE issues [<!ENTITY inner "inner text">]><issues burpVersion="2"><issue><type>1</type><name>A &inner; B</name><host>h</host><path>/p</path><location>/p</location><severity>False positive</severity></issue></issues>`,
  `<issues burpVersion="2"/>`,
  `<issues></issues>`,
  `<NessusClientData><Report/></NessusClientData>`,
];
(async () => {
  for (const c of cases) {
    try {
      const r = await parseReportFile(Buffer.from(c));
      console.log(JSON.stringify(r.findings.map((f) => f.versions[0].title)), JSON.stringify(r.docMetadata));
    } catch (e) { console.log('ERR', (e as { code?: string }).code, (e as Error).message); }
  }
})();
