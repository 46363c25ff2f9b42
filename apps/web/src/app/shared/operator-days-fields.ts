import { ChangeDetectionStrategy, Component, inject, input, resource } from '@angular/core';
import { ControlContainer, FormGroupDirective, ReactiveFormsModule } from '@angular/forms';
import { OperatorsApi } from '../operators/operators-api';

/**
 * The admin logs' shared filter fields, inside the page's form: one operator (or anyone), the
 * page's own fields (projected), and the `from` and `to` days (`YYYY-MM-DD`).
 */
@Component({
  selector: 'cc-operator-days-fields',
  imports: [ReactiveFormsModule],
  // The fields bind to the controls of the page's own form.
  viewProviders: [{ provide: ControlContainer, useExisting: FormGroupDirective }],
  styles: ':host { display: contents; }',
  template: `
    <div class="field">
      <label [for]="prefix() + '-operator'" i18n="@@audit.operator">Operator</label>
      <select [id]="prefix() + '-operator'" [formControlName]="operatorControl()">
        <option value="" i18n="@@audit.anyone">Anyone</option>
        @for (o of operators.value(); track o.id) {
          <option [value]="o.id">{{ o.username }}</option>
        }
      </select>
    </div>
    <ng-content />
    <div class="field">
      <label [for]="prefix() + '-from'" i18n="@@audit.from">From</label>
      <input [id]="prefix() + '-from'" type="date" formControlName="from" />
    </div>
    <div class="field">
      <label [for]="prefix() + '-to'" i18n="@@audit.to">To</label>
      <input [id]="prefix() + '-to'" type="date" formControlName="to" />
    </div>
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class OperatorDaysFields {
  private readonly api = inject(OperatorsApi);
  /** Starts the fields' ids (`a` → `a-operator`, `a-from`, `a-to`). */
  readonly prefix = input.required<string>();
  /** The form control holding the operator's id. */
  readonly operatorControl = input.required<string>();
  /** Without the list (an error) the select offers only "Anyone". */
  protected readonly operators = resource({
    loader: () => this.api.list().catch(() => []),
    defaultValue: [],
  });
}
