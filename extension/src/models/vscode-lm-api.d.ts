// The language model provider API of VS Code 1.104 (stable there), and the
// language model tool API the provider's agent-action tool uses (1.95), declared
// here because @types/vscode stays at the version engines.vscode allows
// (vsce refuses newer types). Only what lm-provider.ts uses; it checks at run
// time that `vscode.lm.registerLanguageModelChatProvider` exists.

import "vscode";

declare module "vscode" {
  export class LanguageModelTextPart {
    value: string;
    constructor(value: string);
  }

  export class LanguageModelToolCallPart {
    callId: string;
    name: string;
    input: object;
    constructor(callId: string, name: string, input: object);
  }

  export class LanguageModelToolResultPart {
    callId: string;
    content: unknown[];
    constructor(callId: string, content: unknown[]);
  }

  export interface LanguageModelChatTool {
    name: string;
    description: string;
    inputSchema?: object | undefined;
  }

  export interface LanguageModelChatInformation {
    readonly id: string;
    readonly name: string;
    readonly family: string;
    readonly tooltip?: string;
    readonly detail?: string;
    readonly version: string;
    readonly maxInputTokens: number;
    readonly maxOutputTokens: number;
    readonly capabilities: { readonly imageInput?: boolean; readonly toolCalling?: boolean | number };
  }

  export interface LanguageModelChatRequestMessage {
    readonly role: LanguageModelChatMessageRole;
    readonly content: readonly unknown[];
    readonly name: string | undefined;
  }

  export interface ProvideLanguageModelChatResponseOptions {
    readonly tools?: readonly LanguageModelChatTool[];
  }

  export type LanguageModelResponsePart = LanguageModelTextPart | LanguageModelToolCallPart;

  export interface LanguageModelChatProvider<T extends LanguageModelChatInformation = LanguageModelChatInformation> {
    readonly onDidChangeLanguageModelChatInformation?: Event<void>;
    provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: CancellationToken): ProviderResult<T[]>;
    provideLanguageModelChatResponse(
      model: T,
      messages: readonly LanguageModelChatRequestMessage[],
      options: ProvideLanguageModelChatResponseOptions,
      progress: Progress<LanguageModelResponsePart>,
      token: CancellationToken,
    ): Thenable<void>;
    provideTokenCount(model: T, text: string | LanguageModelChatRequestMessage, token: CancellationToken): Thenable<number>;
  }

  export class LanguageModelToolResult {
    content: unknown[];
    constructor(content: unknown[]);
  }

  export interface LanguageModelToolInvocationPrepareOptions<T> {
    readonly input: T;
  }

  export interface LanguageModelToolInvocationOptions<T> {
    readonly input: T;
  }

  export interface PreparedToolInvocation {
    invocationMessage?: string | MarkdownString;
    confirmationMessages?: { title: string; message: string | MarkdownString };
  }

  export interface LanguageModelTool<T> {
    invoke(options: LanguageModelToolInvocationOptions<T>, token: CancellationToken): ProviderResult<LanguageModelToolResult>;
    prepareInvocation?(options: LanguageModelToolInvocationPrepareOptions<T>, token: CancellationToken): ProviderResult<PreparedToolInvocation>;
  }

  export namespace lm {
    export function registerLanguageModelChatProvider(vendor: string, provider: LanguageModelChatProvider): Disposable;
    export function registerTool<T>(name: string, tool: LanguageModelTool<T>): Disposable;
  }
}
