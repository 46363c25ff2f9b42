/** Getting reports in: the importers, PDF review, chat attachments and the synthetic corpus generator. */
export * from './importers';
export * from './pdf-reports';
export * from './attachments/chat-attachments';
export * from './generator';
