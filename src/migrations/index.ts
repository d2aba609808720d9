import { Migration20261122000000Foundation } from './Migration20261122000000Foundation.js';
import { Migration20261122010000Lifecycle } from './Migration20261122010000Lifecycle.js';
import { Migration20261122020000RepeatControl } from './Migration20261122020000RepeatControl.js';

/** Committed migrations, in order. The migrator applies these and nothing else. */
export const MIGRATIONS = [
  { name: 'Migration20261122000000Foundation', class: Migration20261122000000Foundation },
  { name: 'Migration20261122010000Lifecycle', class: Migration20261122010000Lifecycle },
  { name: 'Migration20261122020000RepeatControl', class: Migration20261122020000RepeatControl },
];
