/**
 * A kind of connection's id rule (shared/sources/connection-kind.ts ConnectionIdRule), applied: for the
 * lifecycle (an id as an operator types it) and for a webhook (an id as a delivery names it). Small and
 * apart, so a webhook's bundle carries the rule and not the lifecycle.
 */
import type { ConnectionKeyDeclaration } from '../sources/connection-kind.ts';
import { toAsciiDigits } from './mobile.ts';

/** The id a text stands for, by the kind's rule; undefined when it is none. */
export const connectionIdOf = (kind: Pick<ConnectionKeyDeclaration, 'id'>, text: string): string | undefined => {
  const rule = kind.id;
  if (rule.rule === 'pattern') return new RegExp(rule.pattern).test(text) ? text : undefined;
  const digits = toAsciiDigits(text).replace(/\D/g, '');
  return digits.length >= rule.digits ? digits.slice(-rule.digits) : undefined;
};
