/**
 * The floor: the repository's own TransactWriteItems for a new lead (the mobile claim and the lead),
 * captured on the wire from a real handler request and replayed with a fresh lead id and mobile number
 * through a bare low-level client configured like the service's. Nothing the service does on top of
 * this one request (HTTP envelope, key check, validation, marshalling) is in it.
 */
import { TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { newLeadId } from '../shared/domain/lead-id.ts';
import { createDynamoDbClient } from '../shared/dynamodb/client.ts';
import type { FloorLoad } from './load.ts';
import { invoke, leadBody, nextMobile, type BenchService } from './service.ts';

export interface Floor {
  /** One bare transaction of the same two items, for a new (project, mobile). */
  send(): Promise<void>;
  readonly template: TransactWriteItemsCommandInput;
  /** What a separate load process needs to replay it (bench/load.ts). */
  readonly load: FloorLoad;
}

export interface Subject {
  readonly apiKey: string;
  readonly projectID: string;
  readonly campaignID: string;
}

export const captureFloor = async (service: BenchService, subject: Subject): Promise<Floor> => {
  const handler = service.handler('website', service.newRuntime());
  const post = () => invoke(handler, 'website', subject.apiKey, leadBody('website', subject.projectID, subject.campaignID));
  await post(); // fills the configuration cache: the captured request is a warm one
  service.capture.arm('TransactWriteItemsCommand');
  const answer = await post();
  const template = service.capture.take<TransactWriteItemsCommandInput>();
  if (answer.status !== 200 || !template) throw new Error(`could not capture the floor transaction (status ${answer.status})`);
  const { id, mobile_number: mobile } = answer.body.data as { id: string; mobile_number: string };
  const text = JSON.stringify(template);
  if (!text.includes(id) || !text.includes(mobile)) throw new Error('the captured transaction does not carry the lead id and mobile');

  const client = createDynamoDbClient({ endpoint: service.endpoint });
  const send = async () => {
    const input = JSON.parse(text.replaceAll(id, newLeadId()).replaceAll(mobile, nextMobile())) as TransactWriteItemsCommandInput;
    await client.send(new TransactWriteItemsCommand(input));
  };
  return { send, template, load: { endpoint: service.endpoint, text, id, mobile } };
};
