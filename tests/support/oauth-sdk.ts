// Test harness: an OAuthClientProvider for the MCP SDK's real OAuth client that catches the authorization redirect instead of opening a browser.
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";

export class CapturingProvider implements OAuthClientProvider {
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  private stored?: OAuthTokens;
  /** The authorization URL the SDK asked us to open. */
  authorizationUrl?: URL;
  lastState?: string;

  constructor(
    private info: OAuthClientInformationMixed | undefined,
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata = { client_name: "hermes-mcp tests", redirect_uris: [redirectUrl] },
  ) {}

  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error("no code verifier saved");
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}
