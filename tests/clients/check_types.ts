// Type-checked by tsc together with the types openapi-typescript generated from /openapi.json
// (tests/tools/clients.sh): the named schemas exist and have the shape clients rely on.
import type { components, operations, paths } from "./datahost";

type Schemas = components["schemas"];

const putCall: Schemas["InstitutionalHoldingPutCall"] | null = "Put";
const status: Schemas["SamEntity"]["status"] = "Inactive";
const error: Schemas["Error"] = { error: "uei must be 12 letters or digits", code: 400, docs: "/docs#bad-request" };
type TradesOk = operations["getCongressTrades"]["responses"][200]["content"]["application/json"];
const firstTicker = (body: TradesOk): string => body.filings[0].trades[0].ticker;
type SamQuery = NonNullable<paths["/v1/sam-entities"]["get"]["parameters"]["query"]>;
const query: SamQuery = { q: "acme", limit: 5 };

export { putCall, status, error, firstTicker, query };
