/**
 * XML answers, read safely (CONTRACT.md section 17): a DOCTYPE anywhere is refused before parsing (so
 * no entity is ever declared), the parser expands no entity at all (`processEntities: false`), and only
 * XML's five predefined entities and character references are read, here, as text. fast-xml-parser
 * (pinned in package.json) validates the document first: a body that is not XML is `malformed_answer`.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { PortalFailure } from './types.ts';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: false,
  htmlEntities: false,
  // Every value as text: `0091` and `9876543210` stay as sent.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // CDATA apart, read as written (no entity in it is one).
  cdataPropName: '#cdata',
});

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

/** Reads XML's predefined entities and character references; anything else is left as written. */
export const xmlText = (text: string): string =>
  text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|lt|gt|amp|apos|quot);/g, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[name] ?? whole;
  });

/** The document as nested objects (attributes under `@name`, text under `#text`), or `malformed_answer`. */
export const parseXml = (body: string): Record<string, unknown> => {
  if (/<!DOCTYPE/i.test(body) || /<!ENTITY/i.test(body)) throw new PortalFailure('malformed_answer', 'the answer declares a DOCTYPE, which is refused');
  if (XMLValidator.validate(body) !== true) throw new PortalFailure('malformed_answer', 'the answer is not XML');
  return parser.parse(body) as Record<string, unknown>;
};

/** A node's text, decoded and trimmed: a string, a CDATA section, or an element with attributes and text. */
export const textOf = (node: unknown): string | undefined => {
  if (node === undefined || node === null) return undefined;
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return xmlText(String(node)).trim();
  if (Array.isArray(node)) return textOf(node[0]);
  if (typeof node === 'object') {
    const { '#text': text, '#cdata': cdata } = node as Record<string, unknown>;
    const raw = many(cdata).map(String).join('');
    return `${raw}${text === undefined ? '' : xmlText(String(text))}`.trim();
  }
  return undefined;
};

/** A child that may occur once or many times, as a list. */
export const many = (node: unknown): unknown[] => (node === undefined || node === null || node === '' ? [] : Array.isArray(node) ? node : [node]);
