import { ChangeDetectionStrategy, Component } from '@angular/core';

/** `/chat` with no thread selected. */
@Component({
  selector: 'cc-chat-empty',
  template: `
    <div class="empty">
      <div class="mark" aria-hidden="true"></div>
      <h1>Chat with your findings</h1>
      <p>Pick a thread on the left or start a new one. Answers quote exact totals from read-only queries, with a link to check each number.</p>
    </div>
  `,
  styles: `
    :host {
      display: grid;
      place-items: center;
      height: 100%;
      background: var(--surface);
    }
    .empty {
      max-width: 26rem;
      text-align: center;
      padding: 2rem;
    }
    .mark {
      width: 3rem;
      height: 3rem;
      margin: 0 auto 1rem;
      border-radius: 12px;
      background:
        linear-gradient(#fff, #fff) 11px 13px / 24px 4px no-repeat,
        linear-gradient(#fff, #fff) 11px 22px / 16px 4px no-repeat,
        linear-gradient(#fff, #fff) 11px 31px / 10px 4px no-repeat,
        #1f3a5f;
    }
    h1 {
      font-size: 1.2rem;
      margin: 0 0 0.4rem;
    }
    p {
      color: var(--muted);
      margin: 0;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ChatEmpty {}
