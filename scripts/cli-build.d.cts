export declare const builtCli: string
export declare const root: string
export declare function cliBuildIsCurrent(): boolean
