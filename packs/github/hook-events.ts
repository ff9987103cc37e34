// The webhook event names GitHub accepts in a hook's `events`: creating or updating a hook with any
// other name is GitHub's 422. The list is the event set of @octokit/webhooks-schemas (a test holds
// it to that package) and a few events GitHub added since; "*" is every event.
const NAMES = `branch_protection_configuration branch_protection_rule check_run check_suite
code_scanning_alert commit_comment create custom_property custom_property_values delete
dependabot_alert deploy_key deployment deployment_protection_rule deployment_review
deployment_status discussion discussion_comment fork github_app_authorization gollum installation
installation_repositories installation_target issue_comment issues label marketplace_purchase
member membership merge_group meta milestone org_block organization package page_build ping
project project_card project_column projects_v2 projects_v2_item projects_v2_status_update public
pull_request pull_request_review pull_request_review_comment pull_request_review_thread push
registry_package release repository repository_advisory repository_dispatch repository_import
repository_ruleset repository_vulnerability_alert secret_scanning_alert
secret_scanning_alert_location secret_scanning_scan security_advisory security_and_analysis
personal_access_token_request sponsorship star status sub_issues team team_add watch
workflow_dispatch workflow_job workflow_run`;

export const GITHUB_HOOK_EVENTS: ReadonlySet<string> = new Set(NAMES.split(/\s+/));
