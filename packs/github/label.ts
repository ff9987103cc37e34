// A repository's label, as kept on issues and pull requests and rendered in their payloads.
export type GitHubLabel = {
  id: number;
  node_id: string;
  url: string;
  name: string;
  color: string;
  default: boolean;
  description: string | null;
};
