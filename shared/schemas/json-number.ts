/**
 * A number as it was written in the JSON body. The contract reads `mobile_number`,
 * `alternate_number`, `projectID` and `campaignID` sent as numbers by their decimal digits, and
 * refuses decimals, negatives and exponents, which the parsed value alone cannot tell apart
 * (`9.87654321e9` parses to the same value as `9876543210`). The body parser keeps the source text.
 */
export class JsonNumber {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }

  /** The digits when the number was written as a non-negative whole number, else undefined. */
  get digits(): string | undefined {
    return /^\d+$/.test(this.source) ? this.source : undefined;
  }
}
