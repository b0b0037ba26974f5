export default function Home() {
  return <main><h1>Workflow Generation Service</h1></main>;
}
