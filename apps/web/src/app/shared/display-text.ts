import { Pipe, type PipeTransform } from '@angular/core';

/**
 * Bidirectional controls (embeddings, overrides, isolates, LRM/RLM, ALM): in a file name or title
 * they reorder what is shown, so `invoice‮fdp.exe` reads as `invoiceexe.pdf`.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** `value` as safe to show inline: without bidi controls; null and undefined give ''. */
export function displayText(value: string | null | undefined): string {
  return value == null ? '' : value.replace(BIDI_CONTROLS, '');
}

/** `{{ r.filename | displayText }}`: report names, finding titles and tool card rows. */
@Pipe({ name: 'displayText' })
export class DisplayTextPipe implements PipeTransform {
  transform(value: string | null | undefined): string {
    return displayText(value);
  }
}
