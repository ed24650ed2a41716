// cross-spawn's cmd.exe escaping (its lib/util/escape.js, which its types do not declare); the platform tests compare with it.
declare module "cross-spawn/lib/util/escape.js" {
  const escape: {
    command(command: string): string;
    argument(argument: string, doubleEscapeMetaChars: boolean): string;
  };
  export default escape;
}
