/**
 * The floor: the repository's own TransactWriteItems for a new lead of a mobile number alone (the
 * mobile's claim, the lead and the mobile's person lookup: the 3 items the contract needs, issue 36),
 * captured on the wire from a real handler request and replayed with a fresh lead id and mobile number
 * through a bare low-level client configured like the service's. Nothing the service does on top of
 * this one request (HTTP envelope, key check, validation, marshalling) is in it.
 */
import { TransactWriteItemsCommand, type TransactWriteItemsCommandInput } from '@aws-sdk/client-dynamodb';
import { newLeadId } from '../shared/domain/lead-id.ts';
import { createDynamoDbClient } from '../shared/dynamodb/client.ts';
import { floorLeadBody, invoke, nextMobile, type BenchService } from './service.ts';

/** The claim, the lead and one person lookup. */
export const FLOOR_ITEMS = 3;

export interface Floor {
  /** One bare transaction of the same three items, for a new (project, mobile). */
  send(): Promise<void>;
  readonly template: TransactWriteItemsCommandInput;
  /** What a separate load process needs to replay it (bench/load.ts). */
  readonly load: FloorLoad;
}

/** What replays the floor: the endpoint, the marshalled input's JSON, and the lead id and mobile in it. */
export interface FloorLoad {
  readonly endpoint: string;
  readonly text: string;
  readonly id: string;
  readonly mobile: string;
}

/** The floor's transaction with a new lead id and mobile: the marshalled input is DynamoDB's JSON wire body. */
export const freshFloorBody = ({ text, id, mobile }: FloorLoad) => (): string => text.replaceAll(id, newLeadId()).replaceAll(mobile, nextMobile());

/** The floor through a bare client built by createDynamoDbClient (the service's settings). */
export const sdkFloorSender = (load: FloorLoad) => {
  const client = createDynamoDbClient({ endpoint: load.endpoint });
  const next = freshFloorBody(load);
  return async (): Promise<void> => {
    await client.send(new TransactWriteItemsCommand(JSON.parse(next()) as TransactWriteItemsCommandInput));
  };
};

export interface Subject {
  readonly apiKey: string;
  readonly projectID: string;
  readonly campaignID: string;
}

export const captureFloor = async (service: BenchService, subject: Subject): Promise<Floor> => {
  const handler = service.handler('website', service.newRuntime());
  const post = () => invoke(handler, 'website', subject.apiKey, floorLeadBody(subject.projectID, subject.campaignID));
  await post(); // fills the configuration cache: the captured request is a warm one
  service.capture.arm('TransactWriteItemsCommand');
  const answer = await post();
  const template = service.capture.take<TransactWriteItemsCommandInput>();
  if (answer.status !== 200 || !template) throw new Error(`could not capture the floor transaction (status ${answer.status})`);
  if (template.TransactItems?.length !== FLOOR_ITEMS) throw new Error(`the floor transaction has ${template.TransactItems?.length} items, not ${FLOOR_ITEMS}`);
  const { id, mobile_number: mobile } = answer.body.data as { id: string; mobile_number: string };
  const text = JSON.stringify(template);
  if (!text.includes(id) || !text.includes(mobile)) throw new Error('the captured transaction does not carry the lead id and mobile');

  const load = { endpoint: service.endpoint, text, id, mobile };
  return { send: sdkFloorSender(load), template, load };
};
